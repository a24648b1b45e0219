package io.fencepost.sample.lab;

import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import org.springframework.context.annotation.Configuration;
import org.springframework.web.servlet.HandlerInterceptor;
import org.springframework.web.servlet.config.annotation.InterceptorRegistry;
import org.springframework.web.servlet.config.annotation.WebMvcConfigurer;

/**
 * The lab's operations (pause the holder, kill the store's connections, turn fencing off) change what the sample
 * does, so they answer only requests that carry the lab page's own header, {@value #HEADER}. A page of another site
 * can make a browser send a form POST here, but not a custom header without a CORS preflight that this application
 * never allows: so no other site can drive the lab through a visitor's browser (cross-site request forgery).
 */
@Configuration(proxyBeanMethods = false)
class LabRequestGuard implements WebMvcConfigurer, HandlerInterceptor {

    static final String HEADER = "X-Fencepost-Lab";

    @Override
    public void addInterceptors(InterceptorRegistry registry) {
        registry.addInterceptor(this).addPathPatterns("/api/lab/**");
    }

    @Override
    public boolean preHandle(HttpServletRequest request, HttpServletResponse response, Object handler)
            throws IOException {
        if ("GET".equals(request.getMethod()) || "HEAD".equals(request.getMethod())) {
            return true;
        }
        if (request.getHeader(HEADER) != null) {
            return true;
        }
        response.sendError(
                HttpServletResponse.SC_FORBIDDEN,
                "lab operations are answered only with the lab page's " + HEADER + " header");
        return false;
    }
}
